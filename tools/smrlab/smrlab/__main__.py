import sys

from smrlab.cli import main

sys.exit(main())
