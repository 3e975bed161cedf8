#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run every test.
# System packages: card art (gnome-cards-data, kdegames-card-data-kf5), its renderer (librsvg2-bin), the
# font decks' typefaces and a headless browser for the end-to-end tests (chromium, driven by Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
need=()
command -v rsvg-convert >/dev/null || need+=(librsvg2-bin)
[ -e /usr/share/aisleriot/cards/anglo.svgz ] || need+=(gnome-cards-data)
[ -e /usr/share/carddecks/svg-standard ] || need+=(kdegames-card-data-kf5)
command -v chromium >/dev/null || need+=(chromium)
# Typefaces of the font decks and glyph decks (onze_vision/synth/art.py FONT_DECKS, GLYPH_DECKS list each file).
fonts=(fonts-dejavu-core fonts-urw-base35 fonts-texgyre fonts-freefont-ttf fonts-liberation2
  fonts-crosextra-caladea fonts-crosextra-carlito fonts-linuxlibertine fonts-ebgaramond
  fonts-roboto-unhinted fonts-symbola fonts-oldstandard fonts-open-sans fonts-lato fonts-cantarell
  fonts-sil-gentium-basic fonts-noto-core)
for font in "${fonts[@]}"; do
  dpkg -s "$font" >/dev/null 2>&1 || need+=("$font")
done
if [ ${#need[@]} -gt 0 ]; then
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
fi
python3 -m pip install -q --disable-pip-version-check -e ".[train,test]"
python3 -m pytest -q "$@"
