package redisstore

import "github.com/redis/go-redis/v9"

// The record is a hash whose fields are named as the other stores'
// columns and attributes. Times are numbers here and only here: the
// expiry in epoch seconds rounded up (storekit.ExpirySeconds), the lease in
// epoch milliseconds, both from the caller's clock; the key's Redis expiry
// is the record's, PEXPIREAT expiration × 1000.
//
//	status                  INPROGRESS or COMPLETED
//	expiration              expiry, epoch seconds (rounded up)
//	in_progress_expiration  lease of an INPROGRESS claim, epoch milliseconds
//	owner                   token of the claim that wrote the record
//	validation              payload fingerprint (absent if not checked)
//	data                    result of a COMPLETED record
//	result_omitted_bytes    size of a result too large to store
//	data_encoding           how data is encoded (absent: as the work returned it)

// claimScript claims KEYS[1]: it writes an INPROGRESS record if the key is
// absent or its record is claimable (idem.Record.Claimable: expired in
// whole seconds, or INPROGRESS with a lease passed in whole milliseconds),
// and returns {1, previous fields}; or it returns {0, fields} of the
// record that holds the key, or {2, fields} when that record is this
// owner's claim (a retry).
//
// ARGV: owner, fingerprint (or ""), now (s), now (ms), expiration (s),
// lease (ms, or "").
var claimScript = redis.NewScript(`
local old = redis.call('HGETALL', KEYS[1])
if #old > 0 then
	local h = {}
	for i = 1, #old, 2 do h[old[i]] = old[i + 1] end
	if h['status'] == 'INPROGRESS' and h['owner'] == ARGV[1] then
		return {2, old}
	end
	local exp = tonumber(h['expiration'])
	local lease = tonumber(h['in_progress_expiration'])
	local claimable = (exp ~= nil and exp < tonumber(ARGV[3]))
		or (h['status'] == 'INPROGRESS' and lease ~= nil and lease < tonumber(ARGV[4]))
	if not claimable then
		return {0, old}
	end
	redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'status', 'INPROGRESS', 'expiration', ARGV[5], 'owner', ARGV[1])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'in_progress_expiration', ARGV[6]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'validation', ARGV[2]) end
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[5]) * 1000)
return {1, old}
`)

// owned opens every fenced script: st holds the record's status, owner,
// then further fields the script names, and owned is whether ARGV[1]
// holds it INPROGRESS. A fenced script returns {1} when it applied, and
// {0, status, owner} (nil for an absent record) when it did not.
func owned(fields string) string {
	return `
local st = redis.call('HMGET', KEYS[1], 'status', 'owner'` + fields + `)
local owned = st[1] == 'INPROGRESS' and st[2] == ARGV[1]
`
}

// completeScript marks the record COMPLETED with its result (ARGV[2]) in
// its encoding (ARGV[5]; "": none) or, with ARGV[3] not "", without it and
// with that size, and with the new expiry ARGV[4] (s), if ARGV[1] holds it
// INPROGRESS. A record ARGV[1] already completed with the same result and
// encoding (or size) is {1}: a retry.
var completeScript = redis.NewScript(owned(`, 'result_omitted_bytes', 'data', 'data_encoding'`) + `
if owned then
	redis.call('HDEL', KEYS[1], 'in_progress_expiration', 'data', 'result_omitted_bytes', 'data_encoding')
	if ARGV[3] ~= '' then
		redis.call('HSET', KEYS[1], 'status', 'COMPLETED', 'expiration', ARGV[4], 'result_omitted_bytes', ARGV[3])
	else
		redis.call('HSET', KEYS[1], 'status', 'COMPLETED', 'expiration', ARGV[4], 'data', ARGV[2])
		if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'data_encoding', ARGV[5]) end
	end
	redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[4]) * 1000)
	return {1}
end
if st[1] == 'COMPLETED' and st[2] == ARGV[1] then
	if ARGV[3] ~= '' then
		if st[3] == ARGV[3] then return {1} end
	elseif not st[3] and st[4] == ARGV[2] and (st[5] or '') == ARGV[5] then
		return {1}
	end
end
return {0, st[1], st[2]}
`)

// releaseScript deletes the record if ARGV[1] holds it INPROGRESS.
var releaseScript = redis.NewScript(owned("") + `
if owned then
	redis.call('DEL', KEYS[1])
	return {1}
end
return {0, st[1], st[2]}
`)

// extendScript sets the lease to ARGV[2] (ms; "" removes it) and the
// expiry to ARGV[3] (s; "" leaves it) if ARGV[1] holds the record
// INPROGRESS.
var extendScript = redis.NewScript(owned("") + `
if owned then
	if ARGV[2] == '' then
		redis.call('HDEL', KEYS[1], 'in_progress_expiration')
	else
		redis.call('HSET', KEYS[1], 'in_progress_expiration', ARGV[2])
	end
	if ARGV[3] ~= '' then
		redis.call('HSET', KEYS[1], 'expiration', ARGV[3])
		redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[3]) * 1000)
	end
	return {1}
end
return {0, st[1], st[2]}
`)
