"""The plain baseline of the structured-run benchmark: parse every JSON line and print it compact."""
import json
import sys

write = sys.stdout.write
for line in sys.stdin:
    write(json.dumps(json.loads(line), separators=(",", ":")) + "\n")
