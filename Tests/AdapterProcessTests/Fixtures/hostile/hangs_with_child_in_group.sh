# Starts a child in its own process group (it does not leave it), writes its pid and its own to
# $HOSTILE_PID_FILE, says hello, then never answers and ignores the end of its stdin: when the runner is
# killed with SIGKILL (no handler runs), the group's guard must kill both.
sleep 300 < /dev/null > /dev/null 2>&1 &
echo "$!" >> "${HOSTILE_PID_FILE:-/dev/null}"
echo "$$" >> "${HOSTILE_PID_FILE:-/dev/null}"
echo '{"type":"hello","protocol":1,"capabilities":[],"implementation":{"name":"hostile","version":"0","language":"sh","platform":"test"}}'
exec sleep 300 < /dev/null
