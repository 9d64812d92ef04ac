// Package idemjson makes idempotency keys and payload fingerprints from
// JSON bodies, so that two deliveries of one request get one key however
// the producer encoded it.
//
// Key makes an idem.Key from the named fields of a JSON object;
// Fingerprint identifies a payload by its canonical form (the whole body,
// or only the named fields). Both write the values in RFC 8785's canonical
// form with numbers kept exact: member order, white space and the spelling
// of a number or a string do not change them, while two different values
// always do (9007199254740993 and 9007199254740992 are two numbers). The
// rules are "Key rules" in docs/protocol.md.
//
// Parse decodes a body once into an Object, from which a key
// (Object.Key), a fingerprint (Object.Hash), a field's value
// (Object.Field) and a natural key's value (Object.NaturalValue) are read
// without decoding it again; package handler reads every record this way.
//
// A field names a value: a member name, or a dotted path into nested
// objects ("document.id"), with `\.` for a dot that is part of a name
// (CheckField checks one, EscapeField writes one).
//
// CheckUnambiguous refuses a body whose members decoders read onto a
// field differently: a name twice in one object, or two names equal but
// for case, which encoding/json matches to one struct field.
//
// Keys that do not come from JSON (a client's key, a natural key of
// parts) are made by package idem itself: idem.ClientKey, idem.NaturalKey.
package idemjson
