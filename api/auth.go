package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

func (s *Server) authRoutes(v1 *gin.RouterGroup) {
	v1.POST("/auth/signup", s.limit(s.deps.Rates.Signup, byAddress), s.signup)
	v1.POST("/auth/login", s.login) // auth counts failed log-ins itself
	v1.POST("/auth/guest", s.limit(s.deps.Rates.Guest, byAddress), s.guest)
	v1.GET("/me", s.requireUser, s.me)
}

type userJSON struct {
	ID          string    `json:"id"`
	Email       *string   `json:"email"`
	DisplayName string    `json:"display_name"`
	Guest       bool      `json:"guest"`
	CreatedAt   time.Time `json:"created_at"`
}

func toUserJSON(u auth.User) userJSON {
	j := userJSON{ID: u.ID, DisplayName: u.DisplayName, Guest: u.Guest, CreatedAt: u.CreatedAt}
	if u.Email != "" {
		j.Email = &u.Email
	}
	return j
}

type sessionJSON struct {
	User        userJSON `json:"user"`
	AccessToken string   `json:"access_token"`
	TokenType   string   `json:"token_type"`
	ExpiresIn   int      `json:"expires_in"`
}

func writeSession(c *gin.Context, status int, sess auth.Session) {
	c.Header("Cache-Control", "no-store")
	c.JSON(status, sessionJSON{
		User: toUserJSON(sess.User), AccessToken: sess.AccessToken,
		TokenType: "Bearer", ExpiresIn: int(sess.ExpiresIn.Seconds()),
	})
}

func (s *Server) signup(c *gin.Context) {
	var in struct {
		Email       string `json:"email"`
		Password    string `json:"password"`
		DisplayName string `json:"display_name"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	sess, err := s.deps.Auth.Signup(c.Request.Context(), auth.SignupInput{Email: in.Email, Password: in.Password, DisplayName: in.DisplayName})
	if err != nil {
		fail(c, err)
		return
	}
	writeSession(c, http.StatusCreated, sess)
}

func (s *Server) login(c *gin.Context) {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	sess, err := s.deps.Auth.Login(c.Request.Context(), auth.LoginInput{Email: in.Email, Password: in.Password, ClientAddr: clientAddr(c)})
	if guidepost.ErrorCode(err) == guidepost.EUNAUTHORIZED {
		s.unauthorized(c, err)
		return
	}
	if err != nil {
		fail(c, err)
		return
	}
	writeSession(c, http.StatusOK, sess)
}

// guest accepts an empty body or {} so a first-launch app can call it bare.
func (s *Server) guest(c *gin.Context) {
	if c.Request.ContentLength != 0 {
		var in struct{}
		if err := decodeJSON(c, &in); err != nil {
			fail(c, err)
			return
		}
	}
	sess, err := s.deps.Auth.Guest(c.Request.Context())
	if err != nil {
		fail(c, err)
		return
	}
	writeSession(c, http.StatusCreated, sess)
}

func (s *Server) me(c *gin.Context) {
	u, err := s.deps.Auth.Me(c.Request.Context(), auth.UserID(c.Request.Context()))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toUserJSON(u))
}
