"""The statistics domain: the arms' statistics under the protocol, abstention quality, the instrument's own quality."""
