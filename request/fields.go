package request

import (
	"slices"
)

// Fields returns the settings of an Identity a deployment carries outside
// code, in the order the docs list them. KeyFunc and NoFingerprint live in
// code only: a part that carries an Identity outside code refuses them.
func Fields() []Field {
	return append(slices.Clone(fields), extraFields()...)
}

// fields is the table: every setting of an Identity carried outside code.
var fields = []Field{
	stringField(Field{Name: "Namespace", Var: "IDEMQ_NAMESPACE", Context: "idemq:namespace", Flag: "namespace",
		Default: "the function's name, with a warning at start-up",
		Doc: "key namespace (`request.Identity.Namespace`); set it once and keep it: a replaced or renamed function finds none of its records under another; " +
			"required by the front door and the command; the dispatcher names each execution after the record key in it"},
		func(id *Identity) *string { return &id.Namespace }),
	stringField(Field{Name: "KeyField", Var: "IDEMQ_KEY_FIELD", Context: "idemq:keyField", Flag: "key-field",
		Default: "`" + DefaultKeyField + "`",
		Doc:     "body member holding the key, or a dotted path into nested objects (`request.Identity.KeyField`); one key source"},
		func(id *Identity) *string { return &id.KeyField }),
	listField(Field{Name: "KeyFields", Var: "IDEMQ_KEY_FIELDS", Context: "idemq:keyFields", Flag: "key-fields",
		Default: "none",
		Doc: "body members that together make the key, a natural key, comma-separated: `document_id,version`, stored as `ns#document_id:doc-1:version:9` " +
			"(`request.Identity.KeyFields`); one key source"},
		func(id *Identity) *[]string { return &id.KeyFields }),
	stringField(Field{Name: "KeyAttribute", Var: "IDEMQ_KEY_ATTRIBUTE", Context: "idemq:keyAttribute", Flag: "key-attribute",
		Default: "none",
		Doc:     "String or Number message attribute holding the key (`request.Identity.KeyAttribute`); one key source"},
		func(id *Identity) *string { return &id.KeyAttribute }),
	listField(Field{Name: "FingerprintFields", Var: "IDEMQ_FINGERPRINT_FIELDS", Context: "idemq:fingerprintFields", Payload: true,
		Default: "the whole body; with `IDEMQ_KEY_FIELDS`, no check",
		Doc:     "body members checked against the stored record, comma-separated, so that fields changing between re-sends do not count (`request.Identity.FingerprintFields`)"},
		func(id *Identity) *[]string { return &id.FingerprintFields }),
}
