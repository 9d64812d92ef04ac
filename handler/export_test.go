package handler

// QueueURLFromARN exports queueURLFromARN to handler_test.
var QueueURLFromARN = queueURLFromARN
