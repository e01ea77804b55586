SELECT name FROM users WHERE email = :email
