"""bench/report — turn one benchmark run's raw output into figures.

usage: python3 -m bench.report --work DIR --out PREFIX [--command CMD] [--smp N]
                               [--wall S] [--vm-exit N] [--quick]

DIR is the run directory the guest filled (params.sh, samples.jsonl, raw/,
vm.err).  Writes PREFIX.json (every figure: per-round samples, median,
min/max, ratios wgx/wireguard.ko and wgx/ceiling) and PREFIX.png (gnuplot,
bench/plot.gp), and prints a table on stdout.  Called by scripts/bench from
the repository's top directory.

One module per figure family, each declaring its figures, reading its
samples and printing its part of the report: traffic (TCP and UDP
throughput, receive spread, TCP counters per GB), latency (ping and
request/response, and the priority lane), storm (handshakes, storms,
bursts), rotation, telemetry (with the crypto ceiling), setconf (time and
memory per peer); table (the main table and the chart); build (the
dispatcher over the samples and the JSON's figures); common (paths, one
figure's samples, parsers shared by several families).

A sample that could not be measured (tool failed, tunnel passed nothing,
handshakes incomplete) is kept as an error with its reason, never as a number.
"""
