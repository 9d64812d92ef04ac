package contract

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/request"
)

// rule is where a case's key comes from.
type rule int

const (
	ruleField     rule = iota // a body member (KeyField, or the default)
	ruleDotted                // a member of a nested object ("req.id")
	ruleFields                // several body members: a natural key
	ruleAttribute             // a message attribute
	ruleFunc                  // a KeyFunc
	rules
)

func (r rule) String() string {
	return [...]string{"field", "dotted field", "fields", "attribute", "func"}[r]
}

// readsBody reports whether the key is read from the body by fields the
// command can name (--body).
func (r rule) readsBody() bool { return r == ruleField || r == ruleDotted || r == ruleFields }

// sample is one generated request: who it is (id) and what a client
// sends.
type sample struct {
	seed  uint64
	rule  rule
	id    request.Identity
	value string // the key the producer is given; "" when the message makes it
	body  string // the body as the client sends it
	scope string // the caller's scope; "" for none
	// handle is the Idempotency-Key a front door client sends with a
	// request whose key the body makes (the fields and func rules).
	handle string
}

func (c sample) String() string {
	return fmt.Sprintf("seed %d: %s rule, namespace %q, key field %q fields %q attribute %q, value %q, scope %q, handle %q, body %s",
		c.seed, c.rule, c.id.Namespace, c.id.KeyField, c.id.KeyFields, c.id.KeyAttribute, c.value, c.scope, c.handle, c.body)
}

// alphabet is what generated names and values are made of: letters,
// digits, every character the key forms give a meaning to (':', '#',
// '%'), JSON's escapes ('"', '\\', '/'), a space, and text beyond ASCII
// (two bytes, three, and four: a surrogate pair in JSON).
var alphabet = []rune("abcxyzABC0129-_.:#%/ \"\\'é日😀")

// ascii is alphabet's printable ASCII: what an Idempotency-Key header
// carries.
var ascii = []rune("abcxyzABC0129-_.:#%/ \"\\'")

// text is 1 to max characters of alphabet.
func text(r *rand.Rand, max int) string { return textOf(r, alphabet, max) }

// textOf is 1 to max characters of chars.
func textOf(r *rand.Rand, chars []rune, max int) string {
	n := 1 + r.IntN(max)
	var b strings.Builder
	for range n {
		b.WriteRune(chars[r.IntN(len(chars))])
	}
	return b.String()
}

// keyText is a key value: half the time printable ASCII, which a front
// door's Idempotency-Key can carry, else any of alphabet.
func keyText(r *rand.Rand, max int) string {
	if r.IntN(2) == 0 {
		return textOf(r, ascii, max)
	}
	return text(r, max)
}

// jsonString spells s as a JSON string, each character at random as
// itself or as a \u escape, so that no reader can depend on one spelling.
func jsonString(r *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case r.IntN(4) == 0 && c >= 0x10000:
			hi, lo := utf16.EncodeRune(c)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		case r.IntN(4) == 0 && c < 0x10000:
			fmt.Fprintf(&b, `\u%04X`, c)
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '/' && r.IntN(2) == 0:
			b.WriteString(`\/`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// number is an integer spelled one of JSON's ways.
func number(r *rand.Rand) string {
	n := r.IntN(1000)
	switch r.IntN(4) {
	case 0:
		return strconv.Itoa(n) + ".0"
	case 1:
		return strconv.Itoa(n) + "e0"
	case 2:
		return strconv.Itoa(-n)
	}
	return strconv.Itoa(n)
}

// value is a JSON value: a string, a number, true, false, null, an
// array or an object, nested at most depth deep.
func value(r *rand.Rand, depth int) string {
	k := r.IntN(7)
	if depth <= 0 && k >= 5 {
		k = 0
	}
	switch k {
	case 0:
		return jsonString(r, text(r, 8))
	case 1:
		return number(r)
	case 2:
		return "true"
	case 3:
		return "false"
	case 4:
		return "null"
	case 5:
		var items []string
		for range r.IntN(3) {
			items = append(items, value(r, depth-1))
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	return object(r, depth-1, nil)
}

// object is a JSON object of a few members named x0, x1, … with random
// values, and the members given (name to value text, names unescaped),
// in a random order, with random white space between tokens.
func object(r *rand.Rand, depth int, given map[string]string) string {
	members := map[string]string{}
	for i := range r.IntN(4) {
		members[fmt.Sprintf("x%d", i)] = value(r, depth)
	}
	for name, v := range given {
		members[name] = v
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	// Go's map order is random: sort, then shuffle, so that a seed makes
	// one body.
	slices.Sort(names)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	ws := func() string { return [...]string{"", " ", "\n", "\t "}[r.IntN(4)] }
	var b strings.Builder
	b.WriteString("{" + ws())
	for i, name := range names {
		if i > 0 {
			b.WriteString("," + ws())
		}
		b.WriteString(jsonString(r, name) + ws() + ":" + ws() + members[name])
	}
	b.WriteString(ws() + "}")
	return b.String()
}

// funcKey is the ruleFunc cases' KeyFunc: the body's "ref" member, as a
// natural value ("ref:" and the member, escaped).
func funcKey(m events.SQSMessage) (string, error) {
	obj, err := idemjson.Parse(m.Body)
	if err != nil {
		return "", err
	}
	ref, _ := obj.Field("ref")
	s, ok := ref.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("%w: no ref", idem.ErrNoKey)
	}
	return idem.NaturalValue("ref", s)
}

// generate makes the request of seed.
func generate(seed uint64) sample {
	r := rand.New(rand.NewPCG(seed, 0x1de))
	c := sample{seed: seed, rule: rule(r.IntN(int(rules)))}
	c.id.Namespace = text(r, 12)
	if r.IntN(2) == 0 {
		c.scope = text(r, 10)
	}
	c.handle = textOf(r, ascii, 16)
	given := map[string]string{}
	switch c.rule {
	case ruleField:
		c.id.KeyField = [...]string{"", "request_id", `a\.b`, "名前"}[r.IntN(4)]
		c.value = keyText(r, 20)
		name := c.id.KeyField
		switch name {
		case "":
			name = request.DefaultKeyField
		case `a\.b`:
			name = "a.b" // the member named a.b
		}
		if r.IntN(3) == 0 { // the body holds the key already
			given[name] = jsonString(r, c.value)
			if r.IntN(2) == 0 {
				c.value = "" // the producer takes the key the body holds
			}
		}
	case ruleDotted:
		c.id.KeyField = [...]string{"req.id", "a.b.c"}[r.IntN(2)]
		c.value = keyText(r, 20)
		if r.IntN(2) == 0 { // the outer object is there, the key is not
			given[strings.Split(c.id.KeyField, ".")[0]] = object(r, 1, nil)
		}
	case ruleFields:
		all := []string{"document_id", "version", "tenant.id", "kind"}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		c.id.KeyFields = all[:2+r.IntN(2)]
		for _, f := range c.id.KeyFields {
			v := jsonString(r, text(r, 10))
			switch r.IntN(3) {
			case 0:
				v = number(r)
			case 1:
				v = [...]string{"true", "false"}[r.IntN(2)]
			}
			if outer, inner, nested := strings.Cut(f, "."); nested {
				given[outer] = object(r, 1, map[string]string{inner: v})
			} else {
				given[f] = v
			}
		}
	case ruleAttribute:
		c.id.KeyAttribute = [...]string{"key", "idem.key"}[r.IntN(2)]
		c.value = keyText(r, 20)
	case ruleFunc:
		c.id.KeyFunc = funcKey
		given["ref"] = jsonString(r, text(r, 12))
	}
	c.body = object(r, 2, given)
	return c
}
