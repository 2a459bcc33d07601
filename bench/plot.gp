# bench/plot.gp — the benchmark chart, called by bench/report (table.py):
#   gnuplot -e "advfile='A'; ceilfile='C'; outfile='O.png'; nadv=N; nceil=M; plottitle='T'" bench/plot.gp
# advfile:  "label" advantage     (wgx vs wireguard.ko; > 1 = wgx better:
#                                  wgx/wg for rates, wg/wgx for times)
# ceilfile: "label" wg% wgx%      (goodput as % of the crypto ceiling)

set terminal pngcairo size 1400,1100 font "sans,10"
set output outfile
set multiplot layout 2,1 title plottitle font "sans,12"

set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -35 left nomirror
set key top right
set rmargin 24
set bmargin 12

set title "wgx relative to wireguard.ko (same VM boot; > 1 = wgx better)"
set ylabel "advantage (x)"
if (nadv > 0) {
	# log scale: 0.5x and 2x sit equally far from parity
	set logscale y 2
	set yrange [*:*]
	plot advfile using 2:xtic(1) title "wgx vs wireguard.ko" lc rgb "#2a7ab0", \
	     1 with lines lw 2 dt 2 lc rgb "#c03030" title "parity"
} else {
	unset xtics
	set yrange [0:2]
	set xrange [0:1]
	set label 1 "no wgx/wireguard.ko pair measured (see the JSON's errors)" at 0.5,1 center
	plot 5 notitle
	unset label 1
	set xtics rotate by -35 left nomirror
}
unset logscale y

set title "goodput as a share of the crypto ceiling (chacha20poly1305 on all vCPUs; both tunnel ends share them)"
set ylabel "% of ceiling"
set xrange [*:*]
if (nceil > 0) {
	set yrange [0:*]
	plot ceilfile using 2:xtic(1) title "wireguard.ko" lc rgb "#909090", \
	     '' using 3 title "wgx" lc rgb "#2a7ab0"
} else {
	unset xtics
	set yrange [0:2]
	set xrange [0:1]
	set label 2 "no throughput figure with a crypto ceiling (see the JSON errors)" at 0.5,1 center
	plot 5 notitle
}
unset multiplot
