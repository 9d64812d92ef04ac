package stores

import "testing"

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"postgres://u:pw@db.example:5432/app", "postgres://u:xxxxx@db.example:5432/app"},
		{"POSTGRES://u:pw@h/app", "POSTGRES://u:xxxxx@h/app"},
		{"postgres://u@h/app?password=pw&sslmode=require", "postgres://u@h/app?password=xxxxx&sslmode=xxxxx"},
		{"postgres://u:p%40w@h1:5432,h2:5433/app#frag", "postgres://u:xxxxx@h1:5432,h2:5433/app"},
		{"rediss://:pw@cache:6380/2", "rediss://:xxxxx@cache:6380/2"},
		{"https://api.example/v1", "https://api.example/v1"},
		{"host=h user=u password=pw", ""}, // key=value: no scheme, no host
		{"postgres://u:p#w@h/app", ""},    // unparseable
		{"postgres://u:12/pw@h/app", ""},  // an unescaped '/' in the password
		{"postgres://u:1?pw@h/app", ""},   // an unescaped '?'
		{"postgres://u:x@y/pw@h/app", ""}, // an '@' past the host
		{"postgres:u:pw@h", ""},           // opaque
		{"", ""},
	} {
		got, ok := RedactURL(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("redactURL(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}
