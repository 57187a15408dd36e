# Max EFI against Ncolor from tests/bench/mcast-ncolor.sh:
#   gnuplot -e "dir='WORK'; out='mcast-ncolor.png'" mcast-ncolor.gp
# One file per curve (ncolor-FABRIC-MODE.dat: Ncolor, max EFI); no limit
# is drawn at Ncolor 1200.
set terminal pngcairo size 900,560 font ",10"
set output out
set title 'MR4LMS: max EFI against Ncolor (MFT entries)'
set xlabel 'Ncolor'
set ylabel 'max EFI'
set logscale xy
set grid
set key top right
set xrange [24:1500]
set xtics ("32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "no limit" 1200)
plot \
  dir.'/ncolor-p3th-planner.dat' using 1:2 with linespoints lw 2 pt 7 \
    title '3-level pruned, 40,960 hosts, 34x34x34: planner', \
  dir.'/ncolor-p3th-fileorder.dat' using 1:2 with linespoints lw 2 pt 6 dt 2 \
    title '3-level pruned: file order, no forecast (daemon)', \
  dir.'/ncolor-rnd-planner.dat' using 1:2 with linespoints lw 2 pt 5 \
    title 'random 2,048 switches, 32x32x40: planner', \
  dir.'/ncolor-rnd-fileorder.dat' using 1:2 with linespoints lw 2 pt 4 dt 2 \
    title 'random: file order, no forecast (daemon)'
