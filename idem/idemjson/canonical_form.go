package idemjson

// Canonical returns the canonical form of a whole JSON document, the bytes
// Fingerprint hashes without fields: RFC 8785's, with numbers kept exact
// (see Object.Hash). Two documents that differ only in member order, white
// space or the spelling of a number or a string have the same canonical
// form. A document that is not I-JSON (not valid JSON, a member name twice
// in one object, a string that is not Unicode text) has none: an error.
func Canonical(body []byte) ([]byte, error) {
	return canonicalJSON(body)
}
