"""Write one data set: ``generate.py FUNCTION DIRECTORY JSON_KWARGS`` calls
``bench.data.FUNCTION(DIRECTORY, **KWARGS)`` and prints what it returns, as JSON."""

import json
import sys
from pathlib import Path

from bench import data

directory = Path(sys.argv[2])
directory.mkdir(parents=True, exist_ok=True)
print(json.dumps(getattr(data, sys.argv[1])(directory, **json.loads(sys.argv[3]))))
