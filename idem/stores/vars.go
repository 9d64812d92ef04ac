package stores

// storeVar and storeURLVar name the variables the messages speak of:
// "IDEMQ_STORE" and "IDEMQ_STORE_URL", which this package cannot import
// (idemqenv imports it); idemqenv's tests hold them equal.
const (
	storeVar    = "IDEMQ_STORE"
	storeURLVar = "IDEMQ_STORE_URL"
)
