# Ignores SIGTERM, starts a child that ignores it too, reports both pids and waits forever.
trap '' TERM
sleep 300 &
echo "{\"shell\":$$,\"child\":$!}"
while true; do wait; done
