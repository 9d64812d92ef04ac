package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ProseFile is the prose the size scenarios cut their answers from, in
// the Go installation's tree (go env GOROOT): Isaac Newton's Opticks
// (567,198 bytes of English, some Latin and Greek in UTF-8).
const ProseFile = "src/testdata/Isaac.Newton-Opticks.txt"

// LoadProse reads ProseFile from the Go installation on PATH.
func LoadProse() ([]byte, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("bench: go env GOROOT: %w (the size scenarios cut their answers from Go's copy of Opticks)", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(ProseFile))
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("bench: the size scenarios cut their answers from Go's copy of Opticks: %w", err)
	}
	if !utf8.Valid(b) || len(b) == 0 {
		return nil, fmt.Errorf("bench: %s is not UTF-8 text", file)
	}
	return b, nil
}

// answerEnvelope is the JSON document every answer is: a model's
// response, its content a slice of prose.
const answerEnvelope = `{"id":"cmpl-%06d","model":"bench-model","content":""}`

// Answers returns n model answers of exactly size bytes each: JSON
// documents {"id","model","content"} whose content is prose cut from text,
// answer i starting i×size bytes in (on a character boundary), text read
// as a ring, so answers are distinct slices as far as text goes and
// repeat it within an answer longer than text. The JSON is written as
// both Go's encoding/json (HTML escaping off) and JavaScript's
// JSON.stringify write it, so the Powertools side, parsing it, returns
// the very same answer. It panics when size is too small for the
// envelope.
func Answers(text []byte, size, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = answer(text, i, size)
	}
	return out
}

// answer is answer i of Answers.
func answer(text []byte, i, size int) []byte {
	head := fmt.Sprintf(answerEnvelope, i)
	budget := size - len(head)
	if budget < 0 {
		panic(fmt.Sprintf("bench: an answer of %d bytes cannot hold its %d-byte envelope", size, len(head)))
	}
	var content bytes.Buffer
	content.Grow(budget)
	at := boundary(text, (i*size)%len(text))
	for content.Len() < budget {
		r, w := utf8.DecodeRune(text[at:])
		esc := jsonRune(r)
		if content.Len()+len(esc) > budget {
			break
		}
		content.WriteString(esc)
		at = (at + w) % len(text)
	}
	for content.Len() < budget {
		content.WriteByte(' ') // the last character did not fit: pad
	}
	doc := make([]byte, 0, size)
	doc = append(doc, head[:len(head)-2]...)
	doc = append(doc, content.Bytes()...)
	doc = append(doc, `"}`...)
	return doc
}

// boundary moves at forward to the start of a character.
func boundary(text []byte, at int) int {
	for at < len(text) && !utf8.RuneStart(text[at]) {
		at++
	}
	return at % len(text)
}

// jsonRune is r inside a JSON string as both encoding/json (HTML escaping
// off) and JSON.stringify write it: the quote, the backslash and control
// characters escaped, everything else as it is (the text holds no U+2028
// or U+2029, which the two write differently).
func jsonRune(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	if r < 0x20 || r == 0x2028 || r == 0x2029 || r == utf8.RuneError {
		return " "
	}
	return string(r)
}

// answerIndex is the index of the answer a record of a size trial gets:
// the number its idempotency key ends with (NewTrial's run-NNNNNN), so
// redeliveries and both sides' runners agree on it.
func answerIndex(body string) (int, error) {
	var b map[string]any
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return 0, fmt.Errorf("bench: a body that is not JSON: %w", err)
	}
	key, _ := b[KeyField].(string)
	if len(key) < 6 {
		return 0, fmt.Errorf("bench: key %q has no record number", key)
	}
	return strconv.Atoi(key[len(key)-6:])
}
