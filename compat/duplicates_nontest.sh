#!/usr/bin/env bash
# Counts the `duplicates` pairs in non-test code of the tree at $1 (default: the cwd), as issue 36
# measured its bar: the tracked and untracked files copied, tests, bench, testdata, compat and
# release removed, then `duplicates --most 200` on the copy. Needs the `duplicates` command.
set -euo pipefail
src="$(cd "${1:-.}" && pwd)"; out="$(mktemp -d)"
cd "$src"; git ls-files -co --exclude-standard | grep -v '^node_modules/' | tar -cf - -T - 2>/dev/null | tar -xf - -C "$out"
cd "$out"
find . \( -name "*_test.ts" -o -name "*_test.tsx" -o -path "*/testdata/*" -o -path "./tests/*" -o -name "_test_support*.ts" -o -path "./bench/*" -o -name "testing.ts" -o -path "*/testing/*" -o -path "./compat/*" -o -path "./release/*" \) -type f -delete
git init -q . && git add -A >/dev/null && git -c user.email=a@b -c user.name=x commit -qm x
duplicates --most 200 --seconds 120
rm -rf "$out"
