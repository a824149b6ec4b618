#!/usr/bin/env python3
"""Round trips a remote search waits on, from `strace -ff -ttt -yy` traces of spotlite-bench's figure 10.

Usage: waits.py TRACE_PREFIX SEARCHES PORT...
Client-side socket events (the fd's peer is one of the servers' PORTs) of the searcher's connections (the last
connection opened to each server) are kept. In each thread, a send followed by a wait (read, poll, select) counts
once. Threads the search thread starts (clone) run at once: each run of clones is a section whose cost is the most
waits any one of its threads (the search thread's own share included) made; outside sections the search thread's
waits add up.
"""
import glob, re, sys, collections

prefix, searches, ports = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
SEND = {"write", "writev", "sendto", "sendmsg"}
WAIT = {"read", "readv", "recvfrom", "recvmsg", "poll", "ppoll", "select", "pselect6"}
line_re = re.compile(r"^(\d+\.\d+) (?:<\.\.\. )?(\w+)")
tcp_re = re.compile(r"TCP:\[([\d.]+):(\d+)->([\d.]+):(\d+)\]")
clone_re = re.compile(r"^(\d+\.\d+) clone3?\(.*= (\d+)$")

events = collections.defaultdict(list)   # tid -> [(time, kind, local_port)]
clones = collections.defaultdict(list)   # tid -> [(time, child)]
first_use = {}                            # (server port, local port) -> first time
for path in glob.glob(prefix + ".*"):
    tid = int(path.rsplit(".", 1)[1])
    with open(path, errors="replace") as trace:
        for line in trace:
            match = clone_re.match(line.rstrip())
            if match:
                clones[tid].append((float(match.group(1)), int(match.group(2))))
                continue
            match = line_re.match(line)
            if not match or "resumed>" in line:
                continue
            name = match.group(2)
            kind = "send" if name in SEND else "wait" if name in WAIT else None
            if kind is None:
                continue
            tcp = tcp_re.search(line)
            if not tcp or tcp.group(4) not in ports:
                continue
            time = float(match.group(1))
            key = (tcp.group(4), tcp.group(2))
            first_use.setdefault(key, time)
            first_use[key] = min(first_use[key], time)
            events[tid].append((time, kind, tcp.group(2)))

# The searcher's connections: per server, the one first used last.
searcher = {}
for (server, local), time in first_use.items():
    if server not in searcher or time > first_use[(server, searcher[server])]:
        searcher[server] = local
local_ports = set(searcher.values())

def waits(evs, start=float("-inf"), end=float("inf")):
    """Send-then-wait transitions whose wait falls in [start, end]."""
    count, sent = 0, False
    for time, kind, port in evs:
        if port not in local_ports:
            continue
        if kind == "send":
            sent = True
        elif sent:
            sent = False
            if start <= time <= end:
                count += 1
    return count

for tid in events:
    events[tid].sort()
active = {tid: evs for tid, evs in events.items() if any(p in local_ports for _, _, p in evs)}
main = max(active, key=lambda t: sum(1 for _, _, p in active[t] if p in local_ports))
total_all_threads = sum(waits(evs) for evs in active.values())
main_waits = waits(active[main])

# Sections: runs of consecutive clones by the search thread.
import bisect
main_times = [t for t, k, p in active[main] if p in local_ports]
main_sends = [t for t, k, p in active[main] if p in local_ports and k == "send"]
sections = []
for time, child in sorted(clones[main]):
    if sections and bisect.bisect_right(main_times, sections[-1]["last_clone"]) == bisect.bisect_right(main_times, time):
        sections[-1]["children"].append(child); sections[-1]["last_clone"] = time
    else:
        sections.append({"start": time, "last_clone": time, "children": [child]})
critical = main_waits
for section in sections:
    kids = [c for c in section["children"] if c in active]
    if not kids:
        continue
    # The caller's own share runs until it joins the threads: up to its first send after the last of theirs.
    last = max(active[c][-1][0] for c in kids)
    following = bisect.bisect_right(main_sends, last)
    end = main_sends[following] if following < len(main_sends) else float("inf")
    own = waits(active[main], section["start"], end)
    critical += max([own] + [waits(active[c]) for c in kids]) - own
print(f"search thread {main}; searcher connections {sorted(local_ports)}; sections {len(sections)}")
print(f"waits per search: search thread alone {main_waits / searches:.2f}, all threads {total_all_threads / searches:.2f}, "
      f"critical path {critical / searches:.2f}")
