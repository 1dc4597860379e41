-- Every shared lab has its row from the start. Until now a lab's row was first written by its first
-- reset, so on a new database a worker started in free play before any reset was refused with
-- "there is no protected row 1". The fenced lab's row is born through the insert trigger (0005), at
-- the highest token handed out so far; the broken labs' rows start at token 0, as a reset leaves them.
INSERT INTO protected_rows (id, value)
SELECT row_id, 'initial' FROM labs WHERE visibility = 'shared' AND kind = 'fenced'
ON CONFLICT DO NOTHING;

INSERT INTO unguarded_rows (id, lab, value)
SELECT row_id, id, 'initial' FROM labs WHERE visibility = 'shared' AND kind <> 'fenced'
ON CONFLICT DO NOTHING;
