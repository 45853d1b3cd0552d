# Says hello, leaves a child that holds stdin, stdout and stderr open, and exits at once.
exec 3<&0
sleep 300 <&3 3<&- &
echo "$!" > "${HOSTILE_PID_FILE:-/dev/null}"
echo '{"type":"hello","protocol":1,"capabilities":[],"implementation":{"name":"hostile","version":"0","language":"sh","platform":"test"}}'
exit 3
