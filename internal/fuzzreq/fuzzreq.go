// Package fuzzreq holds what the fuzz targets of request, producer and
// frontdoor share: the key rules they try, another spelling of a JSON
// body, and the checks of a stamped body against the caller's. It imports
// no part of idemq (it sits below them all): a rule's Identity converts
// to a request.Identity, request.Identity(rule.Identity).
package fuzzreq

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/aws/aws-lambda-go/events"
)

// Namespace is the namespace of every rule that has one.
const Namespace = "ns"

// Rule is one key rule the targets try: an Identity, and where it reads
// the key.
type Rule struct {
	// Name says what the rule is, for failures.
	Name string
	// Identity is the rule, as request.Identity(Identity) takes it.
	Identity Identity
	// Path is the names along the body member the key is put in (its
	// KeyField, split); nil when the key is not one body member.
	Path []string
	// Fields are the body fields the key or the fingerprint is read
	// from, each as request.Identity names it (a dotted path).
	Fields []string
}

// Identity has request.Identity's fields, in its order: a conversion,
// request.Identity(rule.Identity), makes the rule, and fails to compile
// when the two part.
type Identity struct {
	Namespace         string
	KeyField          string
	KeyFields         []string
	KeyAttribute      string
	KeyFunc           func(msg events.SQSMessage) (string, error)
	FingerprintFields []string
	NoFingerprint     bool
}

// ErrFuncRefused is what the rule "func"'s KeyFunc returns for a body it
// cannot read.
var ErrFuncRefused = errors.New("fuzzreq: the key func refused the body")

// ticketKey is the rule "func"'s KeyFunc: the body member "ticket",
// lower-cased (of a name twice, the last), "" when it is no string; a
// body that is no JSON object it refuses.
func ticketKey(msg events.SQSMessage) (string, error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(msg.Body), &obj); err != nil || obj == nil {
		return "", fmt.Errorf("%w: %v", ErrFuncRefused, err)
	}
	s, _ := obj["ticket"].(string)
	return strings.ToLower(s), nil
}

// Rules are the key rules tried, one of each source, with and without a
// fingerprint's fields, and one without a namespace (a producer's).
var Rules = []Rule{
	{Name: "default", Identity: Identity{Namespace: Namespace}, Path: []string{"idempotency_key"}, Fields: []string{"idempotency_key"}},
	{Name: "dotted", Identity: Identity{Namespace: Namespace, KeyField: "request.id"}, Path: []string{"request", "id"}, Fields: []string{"request.id"}},
	{Name: "escaped dot", Identity: Identity{Namespace: Namespace, KeyField: `a\.b`, FingerprintFields: []string{"prompt"}}, Path: []string{"a.b"}, Fields: []string{`a\.b`, "prompt"}},
	{Name: "fields", Identity: Identity{Namespace: Namespace, KeyFields: []string{"document_id", "version"}}, Fields: []string{"document_id", "version"}},
	{Name: "attribute", Identity: Identity{Namespace: Namespace, KeyAttribute: "key"}},
	{Name: "func", Identity: Identity{Namespace: Namespace, KeyFunc: ticketKey}},
	{Name: "fingerprint fields", Identity: Identity{Namespace: Namespace, FingerprintFields: []string{"prompt", "model.name"}}, Path: []string{"idempotency_key"}, Fields: []string{"idempotency_key", "prompt", "model.name"}},
	{Name: "no fingerprint", Identity: Identity{Namespace: Namespace, KeyField: "id", NoFingerprint: true}, Path: []string{"id"}, Fields: []string{"id"}},
	{Name: "no namespace", Identity: Identity{}, Path: []string{"idempotency_key"}, Fields: []string{"idempotency_key"}},
}

// Pick returns the rule b names, among rules.
func Pick(rules []Rule, b uint8) Rule { return rules[int(b)%len(rules)] }

// Namespaced are the Rules with a namespace (a front door needs one).
func Namespaced() []Rule {
	return slices.DeleteFunc(slices.Clone(Rules), func(r Rule) bool { return r.Identity.Namespace == "" })
}

// Attribute is a message attribute of the type kind names: 0 none, then
// String, Number, a custom String type, Binary (no string value), and a
// String without a value.
func Attribute(kind uint8, value string) (events.SQSMessageAttribute, bool) {
	v := value
	switch kind % 6 {
	case 1:
		return events.SQSMessageAttribute{DataType: "String", StringValue: &v}, true
	case 2:
		return events.SQSMessageAttribute{DataType: "Number", StringValue: &v}, true
	case 3:
		return events.SQSMessageAttribute{DataType: "String.custom", StringValue: &v}, true
	case 4:
		return events.SQSMessageAttribute{DataType: "Binary", BinaryValue: []byte(value)}, true
	case 5:
		return events.SQSMessageAttribute{DataType: "String"}, true
	}
	return events.SQSMessageAttribute{}, false
}

// Members decodes body as encoding/json does (numbers as spelled): what a
// worker decoding it sees.
func Members(body []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

// Reencode writes body, which encoding/json reads exactly (a body
// idemjson.Fingerprint takes: no name twice, every string Unicode text),
// another way: members in reverse order, white space between every token,
// and every string's non-ASCII characters, and its letters 'a' to 'f',
// escaped as \u.
func Reencode(body []byte) ([]byte, error) {
	v, err := Members(body)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeOther(&b, v)
	return b.Bytes(), nil
}

func writeOther(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		names := slices.Sorted(maps.Keys(v))
		slices.Reverse(names)
		b.WriteString(" {\n")
		for i, n := range names {
			if i > 0 {
				b.WriteString(" ,\t")
			}
			writeString(b, n)
			b.WriteString(" :\r\n")
			writeOther(b, v[n])
		}
		b.WriteString("\n} ")
	case []any:
		b.WriteString("[ ")
		for i, e := range v {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeOther(b, e)
		}
		b.WriteString(" ]")
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	}
}

// writeString writes s with escapes wherever one may be written.
func writeString(b *bytes.Buffer, s string) {
	b.WriteString(Quote(s, func(r rune) bool { return r >= 0x80 || ('a' <= r && r <= 'f') }))
}

// Quote spells s as a JSON string: '"' and a backslash escaped with a
// backslash; a control character, and each rune escape says, as a \u
// escape (upper-case hex; above U+FFFF a surrogate pair, lower-case
// hex); every other rune as itself. A test spells one value many ways
// with it.
func Quote(s string, escape func(r rune) bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || escape(r):
			if hi, lo := utf16.EncodeRune(r); hi != unicode.ReplacementChar {
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
				continue
			}
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CheckStamped checks body, as a stamp sent it, against orig, the
// caller's body, the key value put at path (nil: no member is put, the
// body is sent as it is):
//   - decoded by encoding/json, it is the caller's with the key at path
//     (the objects on the way made where absent or null), every other
//     member unchanged;
//   - the bytes outside the inserted member are the caller's: the two
//     differ in one place, where the caller's body held nothing, null or
//     "".
func CheckStamped(orig, sent []byte, path []string, value string) error {
	if bytes.Equal(orig, sent) {
		return nil
	}
	if path == nil {
		return fmt.Errorf("the body was changed, though the key is not put in it:\n%q\n%q", orig, sent)
	}
	o, err := Members(orig)
	if err != nil {
		return fmt.Errorf("encoding/json cannot read the caller's body, which was stamped: %w", err)
	}
	s, err := Members(sent)
	if err != nil {
		return fmt.Errorf("encoding/json cannot read the stamped body %q: %w", sent, err)
	}
	want, err := setPath(o, path, value)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(want, s) {
		return fmt.Errorf("the stamped body %q decodes to %v, want the caller's %v with %q at %v", sent, s, o, value, path)
	}
	// The one place the bytes differ.
	p := 0
	for p < len(orig) && p < len(sent) && orig[p] == sent[p] {
		p++
	}
	q := 0
	for q < len(orig)-p && q < len(sent)-p && orig[len(orig)-1-q] == sent[len(sent)-1-q] {
		q++
	}
	if gone := string(orig[p : len(orig)-q]); !strings.Contains("null", gone) && !strings.Contains(`""`, gone) {
		return fmt.Errorf("the stamped body %q replaced the caller's bytes %q (at byte %d)", sent, gone, p)
	}
	return nil
}

// setPath is v with value at path, as a stamp puts it: objects made where
// absent or null, the last name set where absent, null or "".
func setPath(v any, path []string, value string) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a key was put at %v in %v, which is not an object", path, v)
	}
	out := make(map[string]any, len(obj)+1)
	for k, e := range obj {
		out[k] = e
	}
	name := path[0]
	if len(path) == 1 {
		if old, ok := obj[name]; ok && old != nil && old != "" {
			return nil, fmt.Errorf("a key was put at %q, which held %v", name, old)
		}
		out[name] = value
		return out, nil
	}
	inner := obj[name]
	if inner == nil {
		inner = map[string]any{}
	}
	set, err := setPath(inner, path[1:], value)
	if err != nil {
		return nil, err
	}
	out[name] = set
	return out, nil
}

// KeyRead is the key member at path as encoding/json reads it into a
// struct with that member (case-insensitive, the last member of a name
// winning): a string, or a number's text; ok is false when it reads none.
func KeyRead(body []byte, path []string) (value string, ok bool, err error) {
	typ := reflect.TypeFor[json.RawMessage]()
	for i := len(path) - 1; i >= 0; i-- {
		if i < len(path)-1 {
			typ = reflect.PointerTo(typ)
		}
		typ = reflect.StructOf([]reflect.StructField{{Name: "F", Type: typ, Tag: reflect.StructTag(`json:"` + path[i] + `"`)}})
	}
	p := reflect.New(typ)
	if err := json.Unmarshal(body, p.Interface()); err != nil {
		return "", false, err
	}
	v := p.Elem()
	for i := range path {
		v = v.Field(0)
		if i < len(path)-1 {
			if v.IsNil() {
				return "", false, nil
			}
			v = v.Elem()
		}
	}
	raw := v.Interface().(json.RawMessage)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, err
		}
		return s, true, nil
	}
	return string(raw), true, nil
}
