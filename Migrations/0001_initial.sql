-- placeholder
CREATE TABLE placeholder (id INTEGER PRIMARY KEY);
