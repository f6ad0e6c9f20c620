import sys

from .qemu import main

sys.exit(main())
