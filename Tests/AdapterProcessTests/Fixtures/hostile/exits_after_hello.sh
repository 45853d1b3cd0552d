# Says hello, reads the runner's first line and exits with status 3.
echo '{"type":"hello","protocol":1,"capabilities":[],"implementation":{"name":"hostile","version":"0","language":"sh","platform":"test"}}'
read -r _
exit 3
