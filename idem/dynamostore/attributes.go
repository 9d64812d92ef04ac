package dynamostore

// Attributes names the attributes of a record's item. An empty field takes
// its default. The defaults are the names Powertools for AWS Lambda uses,
// with the same units, plus Owner, OmittedBytes and Encoding.
type Attributes struct {
	// Key is the table's partition key: a string holding the idem.Key.
	// Defaults to "id".
	Key string
	// Expiry is when the record expires, in epoch seconds (rounded up):
	// make it the table's TTL attribute. Defaults to "expiration".
	Expiry string
	// Lease is when an IN_PROGRESS claim may be taken over, in epoch
	// milliseconds; absent on a COMPLETED record. Defaults to
	// "in_progress_expiration".
	Lease string
	// Status is "INPROGRESS" or "COMPLETED". Defaults to "status".
	Status string
	// Result is the stored result of a COMPLETED record, a binary value.
	// Defaults to "data".
	Result string
	// Fingerprint is the payload fingerprint the record was written for,
	// a string; absent when the payload is not checked. Defaults to
	// "validation".
	Fingerprint string
	// Owner is the token of the claim that wrote the record; every write
	// after the claim is conditioned on it. Defaults to "owner".
	Owner string
	// OmittedBytes is, on a COMPLETED record stored without its result,
	// the size in bytes of that result, too large to store; absent
	// otherwise. Defaults to "result_omitted_bytes".
	OmittedBytes string
	// Encoding is, on a COMPLETED record whose result is stored encoded,
	// the encoding, a string ("gzip": Result holds the gzip of
	// the result); absent on a result stored as it is, and on every
	// record written before compression existed or by Powertools.
	// Defaults to "data_encoding".
	Encoding string
}

var defaultAttributes = Attributes{
	Key:          "id",
	Expiry:       "expiration",
	Lease:        "in_progress_expiration",
	Status:       "status",
	Result:       "data",
	Fingerprint:  "validation",
	Owner:        "owner",
	OmittedBytes: "result_omitted_bytes",
	Encoding:     "data_encoding",
}

// fields lists the names with their field names and defaults.
func (a *Attributes) fields() []attrField {
	d := defaultAttributes
	return []attrField{
		{"Key", &a.Key, d.Key},
		{"Expiry", &a.Expiry, d.Expiry},
		{"Lease", &a.Lease, d.Lease},
		{"Status", &a.Status, d.Status},
		{"Result", &a.Result, d.Result},
		{"Fingerprint", &a.Fingerprint, d.Fingerprint},
		{"Owner", &a.Owner, d.Owner},
		{"OmittedBytes", &a.OmittedBytes, d.OmittedBytes},
		{"Encoding", &a.Encoding, d.Encoding},
	}
}

type attrField struct {
	field string
	name  *string
	def   string
}

func (a Attributes) withDefaults() Attributes {
	for _, f := range a.fields() {
		if *f.name == "" {
			*f.name = f.def
		}
	}
	return a
}
