package org.sessionconformance.kit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for protocol v1 lines: objects ({@link LinkedHashMap}, keys in order), arrays
 * ({@link ArrayList}), strings, numbers ({@link Long} when integral and in range, else {@link Double}), booleans
 * and null. The parser is strict (RFC 8259) and bounded in depth, as everything the runner sends is untrusted
 * data; its errors name the position, never the text (a line may hold a token).
 */
public final class Json {
    /** Nesting deeper than this is refused rather than overflowing the stack. */
    public static final int MAX_DEPTH = 256;

    /** Input that is not JSON: the message says what and where, without quoting the input. */
    public static final class ParseError extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        /** @param message what is wrong, and at which character */
        public ParseError(String message) { super(message); }
    }

    private final String text;
    private int at;

    private Json(String text) { this.text = text; }

    /**
     * Parses one JSON value.
     * @param text the JSON text
     * @return the value: a Map, List, String, Long, Double, Boolean or null
     * @throws ParseError when the text is not exactly one JSON value
     */
    public static Object parse(String text) {
        Json json = new Json(text);
        json.space();
        Object value = json.value(0);
        json.space();
        if (json.at != text.length()) throw json.error("trailing characters after the value");
        return value;
    }

    /**
     * Parses a JSON object.
     * @param text the JSON text
     * @return the object's members, in order
     * @throws ParseError when the text is not one JSON object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) throw new ParseError("expected a JSON object, found " + kind(value));
        return (Map<String, Object>) value;
    }

    private static String kind(Object value) {
        if (value == null) return "null";
        if (value instanceof List) return "an array";
        if (value instanceof String) return "a string";
        if (value instanceof Boolean) return "a boolean";
        return "a number";
    }

    private ParseError error(String what) { return new ParseError(what + " at character " + (at + 1)); }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            at++;
        }
    }

    private char peek() {
        if (at >= text.length()) throw error("unexpected end of input");
        return text.charAt(at);
    }

    private void expect(char c) {
        if (peek() != c) throw error("expected '" + c + "'");
        at++;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
        char c = peek();
        if (c == '{') {
            Map<String, Object> map = new LinkedHashMap<>();
            at++;
            space();
            if (peek() == '}') { at++; return map; }
            while (true) {
                space();
                if (peek() != '"') throw error("expected a member name");
                String key = string();
                space();
                expect(':');
                space();
                map.put(key, value(depth + 1));
                space();
                char next = peek();
                at++;
                if (next == '}') return map;
                if (next != ',') { at--; throw error("expected ',' or '}'"); }
            }
        }
        if (c == '[') {
            List<Object> list = new ArrayList<>();
            at++;
            space();
            if (peek() == ']') { at++; return list; }
            while (true) {
                space();
                list.add(value(depth + 1));
                space();
                char next = peek();
                at++;
                if (next == ']') return list;
                if (next != ',') { at--; throw error("expected ',' or ']'"); }
            }
        }
        if (c == '"') return string();
        if (text.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
        if (text.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
        if (text.startsWith("null", at)) { at += 4; return null; }
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        throw error("unexpected character");
    }

    private Object number() {
        int start = at;
        if (text.charAt(at) == '-') at++;
        if (at < text.length() && text.charAt(at) == '0') at++;
        else if (!digits()) throw error("malformed number");
        boolean integral = true;
        if (at < text.length() && text.charAt(at) == '.') {
            at++;
            integral = false;
            if (!digits()) throw error("malformed number");
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            integral = false;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) at++;
            if (!digits()) throw error("malformed number");
        }
        String number = text.substring(start, at);
        if (integral && number.length() <= 18) return Long.parseLong(number);
        if (integral) {
            BigInteger big = new BigInteger(number);
            if (big.bitLength() < 64) return big.longValue();
        }
        return new BigDecimal(number).doubleValue();
    }

    private boolean digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') at++;
        return at > start;
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++; // opening quote
        while (true) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) { at--; throw error("control character in a string"); }
            if (c != '\\') { out.append(c); continue; }
            if (at >= text.length()) throw error("unterminated string");
            char e = text.charAt(at++);
            switch (e) {
                case '"': case '\\': case '/': out.append(e); break;
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u': {
                    if (at + 4 > text.length()) throw error("truncated \\u escape");
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int digit = Character.digit(text.charAt(at + i), 16);
                        if (digit < 0) throw error("malformed \\u escape");
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                    at += 4;
                    break;
                }
                default: at--; throw error("unknown escape");
            }
        }
    }

    /**
     * Writes a value as JSON on one line. Maps, lists (and arrays of objects), strings, numbers, booleans and
     * null are written as such; anything else as its {@code toString()} in a string.
     * @param value the value
     * @return its JSON text, with no newline
     * @throws IllegalArgumentException for a NaN or infinite number, which JSON cannot carry
     */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) { out.append("null"); return; }
        if (value instanceof String) { quote((String) value, out); return; }
        if (value instanceof Boolean || value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte || value instanceof BigInteger) { out.append(value); return; }
        if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("JSON has no NaN or infinity");
            out.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? String.valueOf((long) d) : String.valueOf(d));
            return;
        }
        if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) out.append(',');
                first = false;
                quote(String.valueOf(entry.getKey()), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
            return;
        }
        if (value instanceof Iterable || value instanceof Object[]) {
            Iterable<?> items = value instanceof Object[] ? List.of((Object[]) value) : (Iterable<?>) value;
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
            return;
        }
        quote(String.valueOf(value), out);
    }

    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c == '\n') out.append("\\n");
            else if (c == '\r') out.append("\\r");
            else if (c == '\t') out.append("\\t");
            else if (c < 0x20 || c == '\u2028' || c == '\u2029') out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        out.append('"');
    }

    /**
     * A mutable map literal, in order: {@code Json.map("type", "log", "level", "info")}.
     * @param keysAndValues alternating keys (strings) and values
     * @return a new {@link LinkedHashMap}
     */
    public static Map<String, Object> map(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) throw new IllegalArgumentException("Json.map wants keys and values in pairs");
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return map;
    }

    /**
     * A member of a message read as an object: an absent or non-object member reads as an empty map.
     * @param value a parsed value
     * @return the value as a map, or a new empty map
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> asMap(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : new LinkedHashMap<>();
    }

}
