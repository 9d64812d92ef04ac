package pgstore

// CompleteAttempts is how many times the store sends a completion, for
// its tests.
const CompleteAttempts = completeAttempts
