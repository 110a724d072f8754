"""Teaching: exercise checks, learner copies, nbgrader courses, isolated grading and projects.
"""
