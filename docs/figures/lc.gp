# lc.gp -- the long-context transition of one layer (theorems.md LC): the
# output cosine of n tokens with pairwise cosine rho = 1/2 at beta =
# gamma log n against gamma, per map (attention alone, Post-LN family,
# Peri-LN, nGPT alpha = 1/4): exact finite-n cosine at n = 10^2, 10^4,
# 10^8, 10^16 (thin to thick lines), the n -> infinity limit (dashed
# steps) and the simulated layer at n = 100 (points).
# Data: attnflow figure lc.
if (!exists("datafile")) datafile = "lc.csv"
if (!exists("outbase")) outbase = "lc"
load "common.gp"
maps = "attn post peri ngpt025"
mtitles = "attention-alone Post-LN-family Peri-LN nGPT,α=1/4"
ks = "2 4 8 16"
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1300, 900) : termsvg(1300, 900))
  set output outbase.".".fmt
  set title "LC: one layer at β = γ log n, pairwise cosine ρ = 1/2 (transition at γ = 1/(1−ρ) = 2)" font ",16"
  set xlabel "γ"
  set ylabel "output cosine"
  set xrange [0.5:3.5]
  set yrange [0.45:1.02]
  set arrow 1 from 2, graph 0 to 2, graph 1 nohead lc rgb "#888888" dt 3
  set key left bottom font ",12" title "lines: n = 10^2, 10^4, 10^8, 10^{16} (thin → thick)\ndashed: n → ∞; points: simulated, n = 100"
  plot for [m=1:4] for [k=1:4] datafile using "gamma":"cos_".word(maps, m)."_n1e".word(ks, k) \
         with lines lt m lw (0.5 + 0.6 * k) dt 1 title (k == 4 ? word(mtitles, m) : ""), \
       for [m=1:4] datafile using "gamma":"lim_".word(maps, m) with steps lt m lw 1.5 dt 2 notitle, \
       for [m=1:4] datafile using "gamma":"sim_".word(maps, m)."_n100" every 2 with points lt m notitle
  set output
}
