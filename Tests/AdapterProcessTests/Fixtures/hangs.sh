# Says it is ready, then neither writes nor exits.
echo '{"type":"ready"}'
exec sleep 300
