// Package remote holds what sources reached over a network share: the retry
// policy (backoff with jitter on throttling, server errors, timeouts and
// broken connections), the checks that a response carries exactly the bytes
// asked for, the error that names the object and range of a failed read,
// request counters, and a source over plain HTTP(S) range requests.
//
// Importing the package registers the http and https schemes with
// iox.Open, so strata.Open accepts such URLs.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Retry defaults.
const (
	DefaultAttempts       = 5
	DefaultBaseDelay      = 100 * time.Millisecond
	DefaultMaxDelay       = 5 * time.Second
	DefaultAttemptTimeout = 2 * time.Minute
	// DefaultHeaderTimeout is how long the clients this module builds wait
	// for a response's headers once a request is sent: a server that
	// accepts connections and never answers costs this a try.
	DefaultHeaderTimeout = time.Minute
)

// Retry is the policy for retrying a request that failed in a way that may
// pass: throttling (HTTP 429, 503 SlowDown), other server errors (5xx),
// timeouts, connection resets and responses cut short. Waits grow
// exponentially from BaseDelay up to MaxDelay and are drawn uniformly
// below that bound ("full jitter"), so clients throttled together do not
// come back together; a server's Retry-After is honoured up to MaxDelay.
// The zero value means the defaults.
type Retry struct {
	// Attempts is the number of tries in all, the first included; 1 never
	// retries. 0 means DefaultAttempts.
	Attempts int
	// BaseDelay bounds the first wait; 0 means DefaultBaseDelay.
	BaseDelay time.Duration
	// MaxDelay bounds every wait; 0 means DefaultMaxDelay.
	MaxDelay time.Duration
	// AttemptTimeout bounds one try, response body included, so a stalled
	// connection is abandoned and retried; 0 means DefaultAttemptTimeout,
	// negative means no bound.
	AttemptTimeout time.Duration
}

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultAttempts
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = DefaultBaseDelay
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = DefaultMaxDelay
	}
	if r.AttemptTimeout == 0 {
		r.AttemptTimeout = DefaultAttemptTimeout
	}
	return r
}

// Do runs op until it succeeds, fails for good, runs out of attempts or ctx
// is done, and returns the number of attempts made with op's last error.
// Each attempt gets a context bounded by AttemptTimeout. When ctx ends, Do
// returns at once with an error wrapping ctx.Err().
func (r Retry) Do(ctx context.Context, op func(ctx context.Context) error) (attempts int, err error) {
	r = r.withDefaults()
	for attempt := 0; ; attempt++ {
		if cerr := ctx.Err(); cerr != nil {
			if err != nil {
				return attempt, fmt.Errorf("%w (last error: %v)", cerr, err)
			}
			return attempt, cerr
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if r.AttemptTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, r.AttemptTimeout)
		}
		err = op(actx)
		timedOut := err != nil && actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return attempt + 1, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return attempt + 1, fmt.Errorf("%w (last error: %v)", cerr, err)
		}
		again, after := Retryable(err)
		if timedOut {
			again = true
			err = fmt.Errorf("attempt timed out after %v: %w", r.AttemptTimeout, err)
		}
		if !again || attempt+1 >= r.Attempts {
			return attempt + 1, err
		}
		wait := r.backoff(attempt)
		if after > wait {
			wait = min(after, r.MaxDelay)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt + 1, fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// backoff draws the wait before retry number attempt+1.
func (r Retry) backoff(attempt int) time.Duration {
	bound := r.MaxDelay
	if attempt < 30 {
		bound = min(r.BaseDelay<<attempt, r.MaxDelay)
	}
	return time.Duration(rand.Int64N(int64(bound) + 1))
}

// StatusError is an HTTP response that was not the one wanted.
type StatusError struct {
	StatusCode int
	Status     string        // such as "503 Service Unavailable"
	Code       string        // the service's error code (S3's <Code>), if any
	RetryAfter time.Duration // the server's Retry-After, if any
}

func (e *StatusError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("HTTP %s (%s)", e.Status, e.Code)
	}
	return "HTTP " + e.Status
}

// HTTPStatusCode returns the status code, as the AWS SDK's errors do.
func (e *StatusError) HTTPStatusCode() int { return e.StatusCode }

// ErrorCode returns the service's error code, as the AWS SDK's errors do.
func (e *StatusError) ErrorCode() string { return e.Code }

// statusError builds a StatusError from a response, reading a little of an
// XML error body for the service's error code.
func statusError(resp *http.Response) *StatusError {
	e := &StatusError{StatusCode: resp.StatusCode, Status: resp.Status}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		var secs int
		if _, err := fmt.Sscanf(ra, "%d", &secs); err == nil && secs >= 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		} else if t, err := http.ParseTime(ra); err == nil {
			e.RetryAfter = max(time.Until(t), 0)
		}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if i := strings.Index(string(body), "<Code>"); i >= 0 {
		rest := string(body[i+len("<Code>"):])
		if j := strings.Index(rest, "</Code>"); j >= 0 && j < 64 {
			e.Code = rest[:j]
		}
	}
	return e
}

// ErrChanged reports that an object changed after it was opened (its ETag
// or size no longer match), so its bytes can no longer be read as one file.
var ErrChanged = errors.New("remote: object changed since it was opened")

// ErrBadResponse reports a response that does not carry the bytes asked for:
// another range, another length, or a whole object instead of a range.
var ErrBadResponse = errors.New("remote: response does not match the request")

// retryable error codes of S3 and S3-compatible services.
var retryCodes = map[string]bool{
	"SlowDown": true, "Throttling": true, "ThrottlingException": true, "RequestLimitExceeded": true,
	"TooManyRequestsException": true, "RequestTimeout": true, "RequestTimeTooSkewed": false,
	"InternalError": true, "ServiceUnavailable": true, "ExpiredToken": false,
}

// Retryable reports whether err may pass on another try, and how long the
// server asked to wait (0 when it did not say). It understands this
// package's errors and those of the AWS SDK (through their HTTPStatusCode
// and ErrorCode methods), so one policy serves every remote source.
func Retryable(err error) (bool, time.Duration) {
	if err == nil || errors.Is(err, context.Canceled) {
		return false, 0
	}
	if errors.Is(err, ErrChanged) || errors.Is(err, ErrBadResponse) {
		return false, 0
	}
	var after time.Duration
	var se *StatusError
	if errors.As(err, &se) {
		after = se.RetryAfter
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		if again, known := retryCodes[coded.ErrorCode()]; known {
			return again, after
		}
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		if c := status.HTTPStatusCode(); c > 0 {
			return c == http.StatusTooManyRequests || c == http.StatusRequestTimeout || c >= 500, after
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true, 0
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, 0
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true, 0
	}
	// The SDK and net/http report some broken connections only in text.
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "server closed idle connection", "unexpected EOF", "use of closed network connection"} {
		if strings.Contains(msg, s) {
			return true, 0
		}
	}
	return false, 0
}
