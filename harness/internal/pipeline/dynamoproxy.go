package pipeline

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
)

// StoreProxy is an HTTP proxy in front of DynamoDB Local that injects
// StoreFaults, and counts what it did per operation.
type StoreProxy struct {
	proxy // URL, Close
	*faultPlan
}

// NewStoreProxy starts a proxy to target (DynamoDB Local's URL) on a free
// port of 127.0.0.1.
func NewStoreProxy(target string, f StoreFaults) (*StoreProxy, error) {
	p := &StoreProxy{faultPlan: newFaultPlan(f, faultThrottled)}
	var err error
	if p.proxy, err = startProxy(target, p.serve); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *StoreProxy) serve(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	switch p.draw(op, recordKey(body)) {
	case faultThrottled:
		writeAWSError(w, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ThrottlingException", "Rate of requests exceeds the allowed throughput.")
	case faultLost:
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)                                                                                                              // applied ...
		writeAWSError(w, http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error") // ... answer lost
	default:
		rp.ServeHTTP(w, r)
	}
}

func writeAWSError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}

// recordKey finds the record key ("id" attribute) a request is about:
// Item.id or Key.id, or in the first item of a transaction.
func recordKey(body []byte) string {
	type attr struct {
		S string `json:"S"`
	}
	type one struct {
		Item map[string]attr `json:"Item"`
		Key  map[string]attr `json:"Key"`
	}
	var req struct {
		one
		TransactItems []map[string]one `json:"TransactItems"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	items := []one{req.one}
	for _, t := range req.TransactItems {
		for _, o := range t {
			items = append(items, o)
		}
	}
	for _, o := range items {
		if a, ok := o.Item["id"]; ok {
			return a.S
		}
		if a, ok := o.Key["id"]; ok {
			return a.S
		}
	}
	return ""
}
