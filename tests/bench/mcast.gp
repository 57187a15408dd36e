# Plots for docs/benchmarks.md from tests/bench/mcast-report.py's data:
#   gnuplot -e "work='DIR'; docs='DIR'" tests/bench/mcast.gp
# One clustered bar per case (topology/pattern), one bar per engine.
set terminal pngcairo size 1400,600 font ",9"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left horizontal
set xtics rotate by -40 left noenhanced
set grid ytics
set bmargin 9

set output docs.'/mcast-efi.png'
set title 'Max EFI per pattern, no MFT limit (lower is better)'
set ylabel 'max EFI'
set logscale y
plot for [i=2:7] work.'/plot-efi.dat' using i:xtic(1) title columnheader(i)

set output docs.'/mcast-colors.png'
set title 'Colors (MFT entries) needed with no limit'
set ylabel 'colors'
plot for [i=2:7] work.'/plot-colors.dat' using i:xtic(1) title columnheader(i)

set output docs.'/mcast-time.png'
set title 'Routing time per group, no MFT limit (median of runs)'
set ylabel 'ms per group'
plot for [i=2:7] work.'/plot-time.dat' using i:xtic(1) title columnheader(i)
