package stores

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// hidden stands for a value that is not printed.
const hidden = "xxxxx"

// notShown stands for a whole value that is not printed.
const notShown = "(value not shown: not a URL whose password can be hidden)"

// ShowURL returns "NAME=value" for an error message, with value's
// password and query values hidden (RedactURL), or NAME and a note that
// the value is not shown when it is not a URL whose password can be told
// apart.
func ShowURL(name, value string) string {
	shown, ok := RedactURL(value)
	if !ok {
		return name + " " + notShown
	}
	return name + "=" + shown
}

// RedactURL returns u with its password and every query value replaced by
// xxxxx and its fragment dropped, and true; or "" and false when u is not
// a URL whose parts are certain: unparseable, without a scheme and a host
// (a key=value connection string), or with an '@' outside the user
// information (a password with an unescaped '/', '?' or '#' in it). The
// scheme is shown as written.
func RedactURL(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Host == "" || p.Opaque != "" ||
		strings.Contains(p.Host+p.RawPath+p.Path+p.RawQuery+p.Fragment, "@") ||
		(p.User == nil && strings.Contains(u, "@")) {
		return "", false
	}
	shown := url.URL{Scheme: p.Scheme, Host: p.Host, Path: p.Path, RawPath: p.RawPath}
	if p.User != nil {
		shown.User = url.User(p.User.Username())
		if _, ok := p.User.Password(); ok {
			shown.User = url.UserPassword(p.User.Username(), hidden)
		}
	}
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		for i, kv := range params {
			k, _, _ := strings.Cut(kv, "=")
			params[i] = k + "=" + hidden
		}
		shown.RawQuery = strings.Join(params, "&")
	}
	s := shown.String()
	return u[:len(p.Scheme)] + s[len(p.Scheme):], true
}

// hideSecrets returns msg with every secret part of the URL u (its
// password, query values and fragment, as written, decoded and quoted) and
// u itself replaced by xxxxx: for an error of a parser that may echo its
// input.
func hideSecrets(msg, u string) string {
	secrets := []string{u}
	if p, err := url.Parse(u); err == nil {
		if pw, ok := p.User.Password(); ok {
			secrets = append(secrets, pw, url.PathEscape(pw), url.QueryEscape(pw))
		}
		for _, kv := range strings.Split(p.RawQuery, "&") {
			_, v, _ := strings.Cut(kv, "=")
			dv, _ := url.QueryUnescape(v)
			secrets = append(secrets, v, dv)
		}
		secrets = append(secrets, p.Fragment, p.RawFragment)
	}
	// The longest first, so no part of a longer secret survives a shorter
	// one's replacement.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range secrets {
		if s == "" {
			continue
		}
		q := strconv.Quote(s)
		msg = strings.ReplaceAll(msg, q[1:len(q)-1], hidden)
		msg = strings.ReplaceAll(msg, s, hidden)
	}
	return msg
}

// Redact returns err with every secret part of the URL u taken out of its
// message (hideSecrets); errors.Is and errors.As still see err.
func Redact(err error, u string) error {
	return redacted{err: err, msg: hideSecrets(err.Error(), u)}
}

// redacted is an error whose message has the store URL's secrets taken
// out; errors.Is and errors.As still see its cause.
type redacted struct {
	err error
	msg string
}

func (e redacted) Error() string { return e.msg }
func (e redacted) Unwrap() error { return e.err }

// URLError reports an IDEMQ_STORE_URL that the store's client (pgx,
// go-redis) refused. Their errors may quote the URL, password and all, so
// the cause is neither wrapped nor shown as it is: only with the URL's
// secrets hidden, and not at all for a value that is not a URL whose
// secrets can be told apart.
func URLError(u string, err error) error {
	if _, ok := RedactURL(u); !ok {
		return fmt.Errorf("%s: the store's client cannot read it (its error is not shown: it may quote the value)", ShowURL(storeURLVar, u))
	}
	return fmt.Errorf("%s: %s", ShowURL(storeURLVar, u), hideSecrets(err.Error(), u))
}
