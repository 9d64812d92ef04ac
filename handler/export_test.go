package handler

// QueueURLFromARN exports queueURLFromARN to handler_test.
var QueueURLFromARN = queueURLFromARN

// ErrReplayHook exports errReplayHook to handler_test.
var ErrReplayHook = errReplayHook
