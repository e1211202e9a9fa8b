#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The device tool sends the checkout's tracked files (64 MiB at most), and results/ alone is ~70 MB
# since 2026-11-25. For a session of device calls, take results/ out of the index (the files stay
# on disk, untracked and ignored through .git/info/exclude, so they do not travel); put it back
# before any commit:
#   scripts/dev/device_tree.sh hide      before the first device call
#   scripts/dev/device_tree.sh restore   before committing (a commit in between would delete results/)
set -euo pipefail
cd "$(dirname "$0")/../.."
ex=.git/info/exclude
mkdir -p .git/info
case ${1:-} in
  hide)
    git rm -r -q --cached results/
    grep -qx '/results/' "$ex" 2>/dev/null || echo '/results/' >>"$ex"
    echo "results/ out of the index: restore before committing" ;;
  restore)
    git reset -q -- results
    [ -f "$ex" ] && sed -i '\|^/results/$|d' "$ex"
    git status --short -- results | head -n 5 ;;
  *) echo "usage: $0 hide|restore" >&2; exit 2 ;;
esac
