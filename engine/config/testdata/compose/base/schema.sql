CREATE TABLE base (x);
