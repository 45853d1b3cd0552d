# Starts a descendant in a session of its own (out of the process group), writes its pid to
# $HOSTILE_PID_FILE, says hello, then never answers: the run must kill both when interrupted.
setsid sleep 300 < /dev/null > /dev/null 2>&1 &
echo "$!" >> "${HOSTILE_PID_FILE:-/dev/null}"
echo '{"type":"hello","protocol":1,"capabilities":[],"implementation":{"name":"hostile","version":"0","language":"sh","platform":"test"}}'
exec sleep 300
