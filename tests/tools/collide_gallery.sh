#!/bin/sh
# tests/tools/collide_gallery.sh — makes the README's pictures of the collision queries at work
# (README.md, "A query step by step") with the `softrast` program: contacts in the pile scene, a GJK
# sequence (every step), an EPA sequence and the SAT axes of two boxes, each picture the world view
# and the Minkowski view side by side. Run from the repository's root after building:
#   tests/tools/collide_gallery.sh [build/src/app/softrast]
# Writes assets/readme/collide_*.png; any failing command stops the script.
set -eu
SOFTRAST=${1:-build/src/app/softrast}
OUT=assets/readme
STEPS=assets/scenes/steps.json
SIZE=1280x540
mkdir -p "$OUT"

# Contacts, closest points and broadphase pairs of the pile (the collision pass's overlays).
"$SOFTRAST" render assets/scenes/pile.json --overlay contacts,closest --size 960x540 --out "$OUT/collide_pile_contacts.png"

# GJK between two hulls, every step, the world view and the Minkowski view side by side.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$SOFTRAST" collide "$STEPS" --pair rock,gem --query gjk --both --steps "$TMP/gjk" --size "$SIZE"
for f in "$TMP"/gjk/gjk-*.png; do cp "$f" "$OUT/collide_$(basename "$f")"; done

# EPA from a cylinder into a box: the first step, two on the way and the last.
for step in 0 3 10; do
  "$SOFTRAST" collide "$STEPS" --pair drum,block --query epa --both --step $step \
    --out "$OUT/collide_epa-$(printf %03d $step).png" --size "$SIZE"
done
"$SOFTRAST" collide "$STEPS" --pair drum,block --query epa --both --out "$OUT/collide_epa-last.png" --size "$SIZE"

# SAT of two boxes: an edge-edge axis on the way, and the last axis with the best one.
"$SOFTRAST" collide "$STEPS" --pair left,right --query sat --step 8 --both --out "$OUT/collide_sat-008.png" --size "$SIZE"
"$SOFTRAST" collide "$STEPS" --pair left,right --query sat --both --out "$OUT/collide_sat-last.png" --size "$SIZE"
