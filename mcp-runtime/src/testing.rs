//! An in-process driver that walks a flow round by round with scripted answers.
