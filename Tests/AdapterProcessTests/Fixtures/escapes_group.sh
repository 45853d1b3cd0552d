# Starts a descendant in a session of its own (so out of the process group) that keeps stdout and
# stderr open, reports its pid once it has left the group, then waits.
setsid sleep 300 &
escaped=$!
until [ "$(ps -o sid= -p "$escaped" | tr -d ' ')" = "$escaped" ]; do sleep 0.01; done
echo "{\"escaped\":$escaped}"
exec sleep 300
