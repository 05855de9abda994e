#!/usr/bin/env bash
# Real photographs for scripts/evaluate-signals.ts, taken from Debian packages (apt-get download +
# dpkg -x; nothing is installed). Only photographs are kept: no illustrations, renders or diagrams.
# They land in .eval-photos/ (gitignored): <package>__<file name>. Idempotent; about 300 MB fetched.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.eval-photos
if [[ -f "$out/.complete" ]]; then exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# package → directory inside it → files (photographs only, chosen by eye).
declare -A dirs=(
  [python3-skimage]=usr/lib/python3/dist-packages/skimage/data
  [mate-backgrounds]=usr/share/backgrounds/mate/nature
  [lomiri-wallpapers-16.04]=usr/share/backgrounds
  [lomiri-wallpapers-20.04]=usr/share/backgrounds
  [opencv-doc]=usr/share/doc/opencv-doc/examples/data
  [plasma-workspace-wallpapers]=usr/share/wallpapers
)
declare -A files=(
  [python3-skimage]="astronaut.png camera.png chelsea.png coffee.png coins.png brick.png grass.png gravel.png rocket.jpg motorcycle_left.png hubble_deep_field.jpg moon.png clock_motion.png page.png text.png retina.jpg"
  [mate-backgrounds]="Aqua.jpg Blinds.jpg Dune.jpg FreshFlower.jpg Garden.jpg GreenMeadow.jpg LadyBird.jpg RainDrops.jpg Storm.jpg TwoWings.jpg Wood.jpg YellowFlower.jpg"
  [lomiri-wallpapers-16.04]="Bridge_by_Sander_Klootwijk.jpg Dragonfly_by_Bolly.jpg Picture_0B_by_freespace.jpg Picture_1A_by_freespace.jpg Wine_by_Jakkub_Mede.jpg aitzgorri_by_Aitzol_Berasategi.jpg analogpattern_by_Peter_Nerlich.jpg free_by_Peter_Nerlich.jpg friends_by_Aitzol_Berasategi.jpg greentock_by_Peter_Nerlich.jpg life_by_Aitzol_Berasategi.jpg picosdeeuropa_by_Aitzol_Berasategi.jpg seeding_by_Clements_Engelhardt.jpg sunset_by_Aitzol_Berasategi.jpg"
  [lomiri-wallpapers-20.04]="Kleiber_by_Lukas_Baubkus.jpg"
  [opencv-doc]="aero1.jpg aero3.jpg aloeL.jpg apple.jpg baboon.jpg basketball1.png board.jpg box.png box_in_scene.png building.jpg butterfly.jpg chicky_512.png ela_original.jpg fruits.jpg graf1.png home.jpg leuvenA.jpg licenseplate_motion.jpg messi5.jpg orange.jpg rubberwhale1.png smarties.png squirrel_cls.jpg stuff.jpg sudoku.png text_defocus.jpg text_motion.jpg left01.jpg left02.jpg left03.jpg left04.jpg left05.jpg left06.jpg left07.jpg left08.jpg left09.jpg left11.jpg left12.jpg left13.jpg left14.jpg right01.jpg right03.jpg right05.jpg right07.jpg right09.jpg right11.jpg right13.jpg"
  [plasma-workspace-wallpapers]="FallenLeaf Path summer_1am EveningGlow Grey Kite ColorfulCups OneStandsOut ColdRipple BytheWater DarkestHour"
)

for pkg in "${!dirs[@]}"; do
  (cd "$work" && apt-get download "$pkg" >/dev/null 2>&1) || { apt-get update -qq && (cd "$work" && apt-get download "$pkg" >/dev/null); }
  dpkg -x "$work/${pkg}"_*.deb "$work/$pkg"
  for f in ${files[$pkg]}; do
    src="$work/$pkg/${dirs[$pkg]}/$f"
    # Plasma wallpapers ship one folder per picture, in several sizes: keep the 2560-wide one.
    if [[ -d "$src" ]]; then src=$(ls "$src"/contents/images/2560x*.jpg | head -1); f="$f.jpg"; fi
    cp "$src" "$out/${pkg}__$f"
  done
  rm -rf "$work/$pkg" "$work/${pkg}"_*.deb
done
touch "$out/.complete"
echo "$(ls "$out" | wc -l) photographs in $out"
