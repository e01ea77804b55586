CREATE TABLE include (x);
