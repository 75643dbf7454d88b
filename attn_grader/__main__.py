"""``python -m attn_grader`` = ``attn-grade`` (제출 폴더 채점)."""

import sys

from .grade import main

sys.exit(main())
