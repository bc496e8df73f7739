# common.gp -- shared settings of the figure scripts (loaded by each).
# Every script is run as
#   gnuplot -e "datafile='NAME.csv'; outbase='NAME'" NAME.gp
# and writes outbase.png (pngcairo) and outbase.svg.
set datafile separator comma
set datafile columnheaders
set encoding utf8
# One colour per scheme, the same in every figure (schemes in the order of
# attnflow.h: Post-LN, Pre-LN, Mix-LN, Peri-LN, nGPT, LN-Scaling).
schemes = "post-ln pre-ln mix-ln peri-ln ngpt ln-scaling"
titles = "Post-LN Pre-LN Mix-LN Peri-LN nGPT LN-Scaling"
set linetype 1 lc rgb "#0072B2" lw 2 pt 7 ps 0.8 dt 1
set linetype 2 lc rgb "#D55E00" lw 2 pt 5 ps 0.8 dt 1
set linetype 3 lc rgb "#009E73" lw 2 pt 9 ps 0.9 dt 2
set linetype 4 lc rgb "#CC79A7" lw 2 pt 11 ps 0.9 dt 1
set linetype 5 lc rgb "#E69F00" lw 2 pt 13 ps 0.9 dt 4
set linetype 6 lc rgb "#000000" lw 2 pt 3 ps 0.9 dt 5
set linetype 7 lc rgb "#888888" lw 1.5 dt 3
set grid lc rgb "#dddddd" lw 1 dt 1
set key box opaque samplen 2.5 spacing 1.1
# term(fmt, w, h): pngcairo or svg of the same size and font.
termpng(w, h) = sprintf("set term pngcairo enhanced size %d,%d font 'Sans,15'", w, h)
termsvg(w, h) = sprintf("set term svg enhanced size %d,%d font 'Sans,15' dynamic", w, h)
