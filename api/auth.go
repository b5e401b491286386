package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// AccountService deletes accounts; *deletion.Service implements it.
type AccountService interface {
	Delete(ctx context.Context, userID string) error
}

func (s *Server) authRoutes(v1 *gin.RouterGroup) {
	v1.POST("/auth/signup", s.limit(s.cfg.Rates.Signup, byAddress), s.signup)
	v1.POST("/auth/login", s.login) // auth counts failed attempts itself, on every password route
	v1.POST("/auth/guest", s.limit(s.cfg.Rates.Guest, byAddress), s.guest)
	v1.POST("/auth/refresh", s.limit(s.cfg.Rates.Refresh, byAddress), s.refresh)
	v1.POST("/auth/logout", s.requireUser, s.logout)
	v1.POST("/auth/password", s.requireUser, s.changePassword)
	v1.POST("/auth/upgrade", s.requireUser, s.upgrade)
	v1.GET("/me", s.requireUser, s.me)
	v1.DELETE("/me", s.requireUser, s.deleteMe)
}

type userJSON struct {
	ID          string    `json:"id"`
	Email       *string   `json:"email"`
	DisplayName string    `json:"display_name"`
	Guest       bool      `json:"guest"`
	CreatedAt   timestamp `json:"created_at"`
}

func toUserJSON(u auth.User) userJSON {
	j := userJSON{ID: u.ID, DisplayName: u.DisplayName, Guest: u.Guest, CreatedAt: timestamp(u.CreatedAt)}
	if u.Email != "" {
		j.Email = &u.Email
	}
	return j
}

type sessionJSON struct {
	User             userJSON `json:"user"`
	AccessToken      string   `json:"access_token"`
	TokenType        string   `json:"token_type"`
	ExpiresIn        int      `json:"expires_in"`
	RefreshToken     string   `json:"refresh_token"`
	RefreshExpiresIn int      `json:"refresh_expires_in"`
}

func writeSession(c *gin.Context, status int, sess auth.Session) {
	c.Header("Cache-Control", "no-store")
	c.JSON(status, sessionJSON{
		User: toUserJSON(sess.User), AccessToken: sess.AccessToken,
		TokenType: "Bearer", ExpiresIn: int(sess.ExpiresIn.Seconds()),
		RefreshToken: sess.RefreshToken, RefreshExpiresIn: int(sess.RefreshExpiresIn.Seconds()),
	})
}

// accountBody is what sign-up and a guest's upgrade send.
type accountBody struct {
	Email       string `json:"email"`
	Password    string `json:"password"`
	DisplayName string `json:"display_name"`
}

func (b accountBody) input(c *gin.Context) auth.SignupInput {
	return auth.SignupInput{Email: b.Email, Password: b.Password, DisplayName: b.DisplayName, ClientAddr: clientAddr(c)}
}

func (s *Server) signup(c *gin.Context) {
	var in accountBody
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	sess, err := s.deps.Auth.Signup(c.Request.Context(), in.input(c))
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
	if code := guidepost.ErrorCode(err); code == guidepost.EUNAUTHORIZED || code == guidepost.ECREDENTIALS {
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
	c.Header("Cache-Control", "no-store") // an email address and account state
	c.JSON(http.StatusOK, toUserJSON(u))
}

func (s *Server) refresh(c *gin.Context) {
	var in struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	sess, err := s.deps.Auth.Refresh(c.Request.Context(), in.RefreshToken)
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

// logout revokes the session the access token belongs to.
func (s *Server) logout(c *gin.Context) {
	ctx := c.Request.Context()
	if err := s.deps.Auth.Logout(ctx, auth.CallerOf(ctx)); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (s *Server) changePassword(c *gin.Context) {
	var in struct {
		CurrentPassword string `json:"current_password"`
		NewPassword     string `json:"new_password"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	sess, err := s.deps.Auth.ChangePassword(ctx, auth.PasswordChange{UserID: auth.UserID(ctx),
		Current: in.CurrentPassword, Next: in.NewPassword, ClientAddr: clientAddr(c)})
	if err != nil {
		fail(c, err)
		return
	}
	writeSession(c, http.StatusOK, sess)
}

func (s *Server) upgrade(c *gin.Context) {
	var in accountBody
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	sess, err := s.deps.Auth.Upgrade(ctx, auth.CallerOf(ctx), in.input(c))
	if err != nil {
		fail(c, err)
		return
	}
	writeSession(c, http.StatusOK, sess)
}

// deleteMe ends the account now (its tokens answer 401 from the next
// request) and answers 202: what it owned is removed in the background.
func (s *Server) deleteMe(c *gin.Context) {
	if s.deps.Accounts == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "account deletion is not enabled on this server"))
		return
	}
	ctx := c.Request.Context()
	if err := s.deps.Accounts.Delete(ctx, auth.UserID(ctx)); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusAccepted)
}
