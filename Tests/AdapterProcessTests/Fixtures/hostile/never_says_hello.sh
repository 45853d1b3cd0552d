# Starts, but says nothing: no hello, ever (a start slower than any timeout).
exec sleep 300
