import sys

from cranfield.cli import main

sys.exit(main())
