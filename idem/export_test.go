package idem

// SameFingerprint exports sameFingerprint to idem_test.
var SameFingerprint = sameFingerprint
