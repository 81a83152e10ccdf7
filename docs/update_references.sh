#!/bin/sh
# Rewrite references to the kit's method specification ("ALGORITHMS.md §N", also when a line
# break falls between the two) into references to the repository's own methods document,
# "docs/methods.md §N" (the same section numbers), in services/, shared/, benchmarks/, tests/
# and README.md; or only in the files given as arguments. Run from anywhere; prints each file
# it rewrote. Running it again changes nothing.
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- services shared benchmarks tests README.md; fi
grep -rl --include='*.py' --include='*.md' 'ALGORITHMS\.md' "$@" | while IFS= read -r file; do
  perl -0pi -e '
    s{(?:\.\./shared/spec/)?ALGORITHMS\.md(\s+)§}{docs/methods.md$1§}g;
    s{ALGORITHMS\.md asks}{docs/methods.md asks}g;
  ' "$file"
  echo "$file"
done
