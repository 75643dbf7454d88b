"""``python -m attn_harness 노트북 읽는_서술자 쓰는_서술자`` (샌드박스 안에서 채점 프로세스가 띄움)."""

import sys

from .harness import main

sys.exit(main())
