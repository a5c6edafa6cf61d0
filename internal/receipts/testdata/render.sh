#!/usr/bin/env bash
# Renders the invented sample receipts in receipts/*.txt (our own layouts, clearly marked
# SAMPLE) into the fixtures the accuracy test reads, in rendered/:
#   NAME.pdf        text PDF (a tiny Go PDF writer, render/main.go)
#   NAME-150.png    clean scan at 150 dpi   (pdftoppm, 16 gray levels)
#   NAME-300.png    clean scan at 300 dpi
#   NAME-photo.jpg  phone-photo style: 2–7° rotation, perspective, low contrast, uneven
#                   light, noise and blur (ImageMagick 6), at ~1500 px wide
# Needs Go, poppler-utils and ImageMagick 6 (convert-im6.q16). Deterministic for one
# ImageMagick build (-seed); run from anywhere: bash internal/receipts/testdata/render.sh
set -euo pipefail
cd "$(dirname "$0")"
im=convert-im6.q16
command -v "$im" >/dev/null || { echo "needs ImageMagick 6: apt-get install imagemagick" >&2; exit 1; }
command -v pdftoppm >/dev/null || { echo "needs poppler-utils" >&2; exit 1; }
# With NAMEs (bash render.sh edelmetall) only those fixtures are rendered and the others'
# files stay as they are. A fixture's photo angle is fixed by its place among all fixtures
# sorted by name, so a new fixture shifts the angles of those after it on a full render.
if [ $# -eq 0 ]; then
  rm -f rendered/*
  go run ./render receipts rendered
else
  tmp=$(mktemp -d)
  for name in "$@"; do cp "receipts/$name.txt" "$tmp/"; done
  go run ./render "$tmp" rendered
  rm -rf "$tmp"
fi
i=0
for txt in receipts/*.txt; do
  name=$(basename "$txt" .txt)
  n="rendered/$name"
  pdf="$n.pdf"
  i=$((i + 1))
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  # 16 gray levels keep the files small (and the anti-aliasing a scanner leaves).
  for r in 150 300; do
    pdftoppm -r "$r" -gray -png -singlefile "$pdf" "$n-$r"
    "$im" "$n-$r.png" -colorspace Gray -depth 4 "$n-$r.png"
  done
  # A different angle (2–7°, either way) and tilt per receipt, fixed by its position.
  angles=(2.5 -3 4 -5.5 6.5 -2 3.5 -7)
  a=${angles[$(((i - 1) % 8))]}
  w=$(identify-im6.q16 -format %w "$n-300.png"); h=$(identify-im6.q16 -format %h "$n-300.png")
  # Perspective: the top edge narrower than the bottom, as when a phone leans back.
  dx=$((w / 25)); dy=$((h / 40))
  "$im" "$n-300.png" -seed "$i" \
    -bordercolor white -border 120 \
    -virtual-pixel background -background '#a99f8e' \
    -distort Perspective "0,0 $dx,$dy  $((w + 240)),0 $((w + 240 - dx)),$((dy / 2))  0,$((h + 240)) 0,$((h + 240))  $((w + 240)),$((h + 240)) $((w + 240)),$((h + 240))" \
    -rotate "$a" \
    +level 18%,82% \
    \( +clone -sparse-color Barycentric "0,0 gray(96%) %[fx:w],%[fx:h] gray(70%)" \) -compose Multiply -composite \
    -attenuate 0.5 +noise Gaussian \
    -blur 0x0.7 -resize 1500x -colorspace Gray -quality 72 "$n-photo.jpg"
done
ls -l rendered
