"""The golden domain: questions from XBRL facts, hard-question proposals and their admission, the golden set's check."""
