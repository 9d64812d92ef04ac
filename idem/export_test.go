package idem

// SameFingerprint exports sameFingerprint to idem_test.
var SameFingerprint = sameFingerprint

// The defaults no user names, for idem_test.
const (
	DefaultMaxDecodedBytesForTest = defaultMaxDecodedBytes
	DefaultSettleTimeoutForTest   = defaultSettleTimeout
)
