import sys

from edgar_eval.cli import main

sys.exit(main())
